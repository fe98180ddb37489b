/* A chain of waits through a message, a collective and a message again, on 4 ranks:
     rank 0 computes 1.0 and sends to rank 1, which waits for it in MPI_Recv (late sender);
     rank 1 then computes 2.0 and enters the MPI_Allreduce last, where the others wait for it;
     rank 3 computes 0.4 after the MPI_Allreduce and sends to rank 2, which waits in MPI_Recv;
     rank 2 computes 0.5 and ends last.
   Critical path = rank 0 [0, 1.0] -> rank 1 compute 2.0 -> rank 3 compute 0.4 -> rank 2 compute 0.5,
   about 3.9 s (plus the network's microseconds). */
#include <mpi.h>
#include <smpi/smpi.h>
int main(int argc, char **argv) {
  int r; char buf[8] = {0}; double x = 1, y;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) { smpi_execute(1.0); MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD); smpi_execute(0.2); }
  if (r == 1) { MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); smpi_execute(2.0); }
  if (r >= 2) smpi_execute(0.5);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (r == 0 || r == 1) smpi_execute(0.1);
  if (r == 3) { smpi_execute(0.4); MPI_Send(buf, 8, MPI_CHAR, 2, 0, MPI_COMM_WORLD); }
  if (r == 2) { MPI_Recv(buf, 8, MPI_CHAR, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); smpi_execute(0.5); }
  MPI_Finalize();
  return 0;
}
