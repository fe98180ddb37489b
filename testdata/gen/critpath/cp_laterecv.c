/* Late receiver (rendezvous, 4 MB > eager threshold): rank0 sends at t=0 and waits for rank1,
   which computes 2.0 before posting its receive; rank0 then computes 0.1 and ends last.
   Critical path = rank1 compute 2.0 -> (message) -> rank0 compute 0.1. */
#include <mpi.h>
#include <stdlib.h>
#include <smpi/smpi.h>
#define N (4 << 20)
int main(int argc, char **argv) {
  int r; char *buf = calloc(N, 1);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) { MPI_Send(buf, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD); smpi_execute(0.1); }
  if (r == 1) { smpi_execute(2.0); MPI_Recv(buf, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
  MPI_Finalize();
  free(buf);
  return 0;
}
