/* A strong-scaling study for the POP efficiencies of a series of runs
 * (testdata/scaling): one problem of fixed size, its work shared among
 * the ranks, run by SimGrid's SMPI at 2, 4, 8 and 16 ranks (scaling.sh).
 * Each iteration a rank computes its share of the problem (unequal:
 * at iteration i, rank r takes 10% more when r + i is 1 mod 3, 20% more
 * when it is 2 mod 3, so the load is imbalanced and the slowest rank
 * changes from an iteration to the next), plus work every rank repeats whatever the ranks (so the
 * total useful time grows with them: computation scalability below 1);
 * it then exchanges a halo of 8 KiB with its ring neighbours and takes
 * part in an MPI_Allreduce. Computation is simulated
 * (smpi_execute_flops), so the runs are deterministic.
 *
 * The halo is exchanged after the rank's only computation of the
 * iteration, and every iteration ends in a collective: on an ideal
 * network (zero latency, unlimited bandwidth, collectives of no cost)
 * each iteration lasts its slowest rank's computation, a closed form the
 * tests check the ideal replay against; as the slowest rank changes, the
 * ideal run is longer than any rank's computation (serialisation). */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdlib.h>

#define ITERATIONS 20
#define PROBLEM 1.6e9   /* flops of the whole problem, per iteration */
#define REPEATED 2.0e7  /* flops every rank repeats, per iteration */
#define HALO 1024       /* doubles */

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *send = calloc(HALO, sizeof(double)), *recv = calloc(2 * HALO, sizeof(double));
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double residual = 1.0, global;
  for (int it = 0; it < ITERATIONS; it++) {
    smpi_execute_flops(PROBLEM / size * (1.0 + 0.1 * ((rank + it) % 3)) + REPEATED);
    MPI_Request req[4];
    MPI_Irecv(recv, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(recv + HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(send, HALO, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(send, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    residual *= 0.5;
    MPI_Allreduce(&residual, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  free(send); free(recv);
  MPI_Finalize();
  return 0;
}
