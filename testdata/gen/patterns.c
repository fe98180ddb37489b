/* The three utilization patterns of Godin, Quinn and Pancake's moment
 * display, on 16 simulated ranks, each rank's work an exact number of
 * flops (smpi_execute_flops) on 1 Gflop/s hosts, so that the moments have
 * closed forms:
 *
 *   imbalance  ten iterations; rank r computes (1 + r/15) x 10 ms, then
 *              every rank waits for the slowest in MPI_Barrier
 *   late       every rank computes 100 ms; ranks 12-15 start 50 ms late
 *              (they sleep first), the others wait for them at the end
 *   tail       ranks 12-15 compute 60 ms, the others 100 ms: the four
 *              finish early and idle in the final MPI_Barrier
 *   skew       every rank computes 80 ms and 10 ms with 30 ms of sleep
 *              between them: ranks 0-7 the long stretch first (most of
 *              their work early: positive skew), ranks 8-15 the short one
 *              first (negative skew), the paper's Fig. 4 halves
 *
 * Usage: patterns imbalance|late|tail|skew (moments_patterns.sh has the
 * command line and the tracing options). */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <string.h>

#define GFLOP 1e9 /* the hosts' speed: flops per second */

static void compute(double seconds) { smpi_execute_flops(seconds * GFLOP); }

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  int late = rank >= size - 4; /* the last four ranks are the odd ones */
  if (strcmp(mode, "imbalance") == 0) {
    for (int i = 0; i < 10; i++) {
      compute(0.010 * (1.0 + (double)rank / (size - 1)));
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (strcmp(mode, "late") == 0) {
    if (late)
      smpi_usleep(50000); /* SMPI's simulated sleep (50 ms): not computation */
    compute(0.100);
  } else if (strcmp(mode, "tail") == 0) {
    compute(late ? 0.060 : 0.100);
  } else if (strcmp(mode, "skew") == 0) {
    int early = rank < size / 2;
    compute(early ? 0.080 : 0.010);
    smpi_usleep(30000);
    compute(early ? 0.010 : 0.080);
  } else {
    if (rank == 0)
      fprintf(stderr, "usage: %s imbalance|late|tail|skew\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
