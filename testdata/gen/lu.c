/* A skeleton of NAS LU (NPB 3.3, lu/): its communication structure, not its
 * arithmetic, for SimGrid's SMPI. Ours.
 *
 * The processes form a PX x PY grid (rank = row * PX + column); each owns a
 * BX x BY x NZ block of the grid points. As LU:
 *   - initialisation: rank 0 broadcasts the parameters (read_input), every
 *     process sets up its block (setbv, setiv, erhs: computation only),
 *     exchanges its faces with its four neighbours (rhs, exchange_3) and
 *     the residual norms are summed (l2norm: MPI_Allreduce);
 *   - NITER iterations of SSOR, each:
 *       the lower triangular sweep (jacld, blts), a wavefront from the
 *       north-west corner: for each of KB blocks of k-planes, receive the
 *       north and west faces (MPI_Irecv, MPI_Wait), compute, send the south
 *       and east faces (MPI_Send);
 *       the upper triangular sweep (jacu, buts), the same from the
 *       south-east corner, k-planes in reverse;
 *       the update, then the right-hand side: faces with the four
 *       neighbours (exchange_3) and its computation;
 *       every INORM iterations, the residual norms (MPI_Allreduce);
 *   - the final norms and errors (MPI_Allreduce).
 * LU pipelines one k-plane at a time; here KB blocks of k-planes, so that
 * the trace stays small (the wavefront is the same, coarser).
 *
 * Computation is charged as flops on the simulated host
 * (smpi_execute_flops, FLOPS_PER_POINT per grid point and phase), so that
 * with smpi/simulate-computation:no every run is the same. Message contents
 * are not used: all buffers are one shared allocation.
 *
 * Usage: lu PX PY NITER KB INORM */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BX 6
#define BY 6
#define NZ 162
#define NVAR 5 /* unknowns per grid point */

/* Floating-point operations per grid point (rough counts of LU's loops). */
#define INIT_FLOPS 200000.0 /* setbv, setiv, erhs */
#define SWEEP_FLOPS 400.0   /* jacld + blts, or jacu + buts */
#define UPDATE_FLOPS 100.0
#define RHS_FLOPS 300.0
#define NORM_FLOPS 10.0

static int px, py, rank, row, col;
static char *buf; /* every message's contents */

static int neighbour(int dr, int dc)
{
	int r = row + dr, c = col + dc;
	if (r < 0 || r >= py || c < 0 || c >= px)
		return MPI_PROC_NULL;
	return r * px + c;
}

/* One triangular sweep, k-planes in KB blocks: from the north-west corner
 * (lower) or the south-east one (upper). */
static void sweep(int lower, int kb)
{
	int up = neighbour(lower ? -1 : 1, 0), side = neighbour(0, lower ? -1 : 1);
	int down = neighbour(lower ? 1 : -1, 0), other = neighbour(0, lower ? 1 : -1);
	for (int b = 0; b < kb; b++) {
		int planes = NZ / kb + (b < NZ % kb);
		int ns = NVAR * BX * planes, ew = NVAR * BY * planes;
		MPI_Request rq[2];
		MPI_Irecv(buf, ns, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(buf, ew, MPI_DOUBLE, side, 2, MPI_COMM_WORLD, &rq[1]);
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
		MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
		smpi_execute_flops(SWEEP_FLOPS * BX * BY * planes);
		MPI_Send(buf, ns, MPI_DOUBLE, down, 1, MPI_COMM_WORLD);
		MPI_Send(buf, ew, MPI_DOUBLE, other, 2, MPI_COMM_WORLD);
	}
}

/* The right-hand side: two ghost layers with each neighbour (exchange_3),
 * then its computation. */
static void rhs(void)
{
	int nb[4] = {neighbour(-1, 0), neighbour(1, 0), neighbour(0, -1), neighbour(0, 1)};
	int len[4] = {2 * NVAR * BX * NZ, 2 * NVAR * BX * NZ, 2 * NVAR * BY * NZ, 2 * NVAR * BY * NZ};
	MPI_Request rq[4];
	for (int i = 0; i < 4; i++)
		MPI_Irecv(buf, len[i], MPI_DOUBLE, nb[i], 3 + (i ^ 1), MPI_COMM_WORLD, &rq[i]);
	for (int i = 0; i < 4; i++)
		MPI_Send(buf, len[i], MPI_DOUBLE, nb[i], 3 + i, MPI_COMM_WORLD);
	for (int i = 0; i < 4; i++)
		MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
	smpi_execute_flops(RHS_FLOPS * BX * BY * NZ);
}

static void l2norm(void)
{
	double local[NVAR] = {0}, sum[NVAR];
	smpi_execute_flops(NORM_FLOPS * BX * BY * NZ);
	MPI_Allreduce(local, sum, NVAR, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int size, params[5];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		if (argc != 6) {
			fprintf(stderr, "usage: lu PX PY NITER KB INORM\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		for (int i = 0; i < 5; i++)
			params[i] = atoi(argv[i + 1]);
	}
	MPI_Bcast(params, 5, MPI_INT, 0, MPI_COMM_WORLD); /* read_input */
	px = params[0];
	py = params[1];
	int niter = params[2], kb = params[3], inorm = params[4];
	if (px * py != size || kb < 1 || kb > NZ || inorm < 1) {
		if (rank == 0)
			fprintf(stderr, "lu: %d x %d processes for %d, %d blocks of k-planes, norms every %d\n", px, py,
				size, kb, inorm);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	row = rank / px;
	col = rank % px;
	buf = SMPI_SHARED_MALLOC(2 * NVAR * (BX > BY ? BX : BY) * NZ * sizeof(double));

	smpi_execute_flops(INIT_FLOPS * BX * BY * NZ); /* setbv, setiv, erhs */
	rhs();
	l2norm();
	for (int it = 1; it <= niter; it++) {
		sweep(1, kb);
		sweep(0, kb);
		smpi_execute_flops(UPDATE_FLOPS * BX * BY * NZ);
		rhs();
		if (it % inorm == 0 || it == niter)
			l2norm();
	}
	l2norm(); /* error, pintgr */

	SMPI_SHARED_FREE(buf);
	MPI_Finalize();
	return 0;
}
