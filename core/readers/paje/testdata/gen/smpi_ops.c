/* A small MPI program of point-to-point (Isend/Irecv/Waitall, Send/Recv),
 * collective (Bcast, Allreduce, Barrier, Alltoall, Reduce) operations and
 * uneven computation, three iterations; its SMPI traces test the Pajé reader.
 *
 * ../smpi-group.trace:
 *   smpicc -O1 -o t smpi_ops.c
 *   printf 'Tremblay\nJupiter\nFafard\nGinette\n' > hf
 *   smpirun -np 4 -platform small_platform.xml -hostfile hf -trace \
 *     -trace-file smpi-group.trace --cfg=tracing/smpi/group:yes \
 *     --log=root.thres:warning ./t
 * ../smpi-sizes.trace: the same with -trace-file smpi-sizes.trace
 *   --cfg=tracing/smpi/display-sizes:yes --cfg=tracing/smpi/group:yes
 *   --log=root.thres:critical
 * with SimGrid 3.32's examples/platforms/small_platform.xml.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int r, n; double buf[1000], out[1000];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 0; i < 1000; i++) buf[i] = r + i;
  for (int it = 0; it < 3; it++) {
    volatile double s = 0; for (int i = 0; i < 200000 * (r + 1); i++) s += i * 0.5;
    MPI_Request rq[2];
    MPI_Isend(buf, 100 * (r + 1), MPI_DOUBLE, (r + 1) % n, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(out, 1000, MPI_DOUBLE, (r + n - 1) % n, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Bcast(buf, 500, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(buf, out, 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0) usleep(1000);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r % 2 == 0) MPI_Send(buf, 10, MPI_DOUBLE, r + 1, 1, MPI_COMM_WORLD);
    else MPI_Recv(out, 10, MPI_DOUBLE, r - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Alltoall(buf, 10, MPI_DOUBLE, out, 10, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Reduce(buf, out, 10, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
