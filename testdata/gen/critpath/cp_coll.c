/* Rotating imbalance before an Allreduce: in iteration k rank k%4 computes 3.0, the others 1.0.
   Critical path = rank0 3.0 -> allreduce -> rank1 3.0 -> allreduce -> rank2 3.0 -> allreduce -> end.
   Straggler of iteration k = rank k%4, late by 2.0 against the next latest. */
#include <mpi.h>
#include <smpi/smpi.h>
int main(int argc, char **argv) {
  int r, k; double x = 1, y;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  for (k = 0; k < 3; k++) {
    smpi_execute(r == k % 4 ? 3.0 : 1.0);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
