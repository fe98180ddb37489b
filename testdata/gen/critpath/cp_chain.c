/* Late-sender chain: critical path = rank0 compute 1.0 -> rank1 compute 2.0 -> rank2 compute 0.3 */
#include <mpi.h>
#include <smpi/smpi.h>
int main(int argc, char **argv) {
  int r; char buf[8] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) { smpi_execute(1.0); MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD); }
  if (r == 1) { smpi_execute(0.5); MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                smpi_execute(2.0); MPI_Send(buf, 8, MPI_CHAR, 2, 0, MPI_COMM_WORLD); }
  if (r == 2) { smpi_execute(0.2); MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                smpi_execute(0.3); }
  MPI_Finalize();
  return 0;
}
