/* A small Jacobi-style iterative solver used to produce Macroscope's
 * bundled example trace under SimGrid's SMPI: ranks compute, exchange
 * halos with their ring neighbours and reduce a residual every few
 * iterations. Computation is simulated with smpi_execute_flops so the
 * trace is deterministic. One host of the platform is slower, and ranks
 * 24-31 checkpoint through the inter-cluster link between iterations
 * 20 and 29, so the trace has both a resource and a temporal anomaly. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdlib.h>

#define ITERATIONS 60
#define HALO 65536

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *send = calloc(HALO, sizeof(double)), *recv = calloc(2 * HALO, sizeof(double));
  double *big = calloc(1 << 17, sizeof(double));
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double residual = 1.0, global;
  for (int it = 0; it < ITERATIONS; it++) {
    smpi_execute_flops(1.0e8 + 1.0e6 * (rank % 4));
    MPI_Request req[4];
    MPI_Irecv(recv, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(recv + HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(send, HALO, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(send, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    if (it >= 20 && it < 30 && rank >= 24) {
      /* checkpoint: ship a large buffer to a partner on the other cluster */
      MPI_Send(big, 1 << 17, MPI_DOUBLE, rank - 24, 2, MPI_COMM_WORLD);
    } else if (it >= 20 && it < 30 && rank < 8) {
      MPI_Recv(big, 1 << 17, MPI_DOUBLE, rank + 24, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (it % 5 == 4) {
      residual *= 0.5;
      MPI_Allreduce(&residual, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(send); free(recv); free(big);
  MPI_Finalize();
  return 0;
}
