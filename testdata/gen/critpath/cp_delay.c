/* Delay costs: rank 0 computes 2.0 more than rank 1 before sending to it,
 * so rank 1 waits 2.0 in MPI_Recv (late sender) and reaches the
 * MPI_Barrier late, where ranks 0 and 2 wait for it.
 *   short-term: rank 0 computing 2.0 (late sender); rank 1 computing 2.0
 *               (collective: 1.0 for rank 0, 1.0 for rank 2) and its
 *               MPI_Recv's transfer (collective, for rank 2)
 *   long-term:  rank 0 computing 2.0 (collective: rank 1's wait of 2.0,
 *               which delayed it for rank 2, traced back to rank 0) */
#include <mpi.h>
#include <smpi/smpi.h>
int main(int argc, char **argv) {
  int r; char buf[8] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) { smpi_execute(3.0); MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD); }
  if (r == 1) { smpi_execute(1.0); MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                smpi_execute(1.0); }
  if (r == 2) { smpi_execute(1.0); }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
