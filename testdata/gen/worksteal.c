/* Random work stealing, as KAAPI's (Lamarche-Perrin et al., section 5):
 * every process runs the tasks it holds (state Run) and, when it holds
 * none, asks a victim drawn at random for half of its tasks, until it
 * gets some (state Steal). Ours, for SimGrid's SMPI.
 *
 * Usage: worksteal TASKS END [SLOW_FACTOR SLOW_RANK...]
 *   TASKS     tasks in all, dealt at the start to every 16th rank;
 *   END       simulated second at which every process stops (those that
 *             run out of work keep trying to steal until then);
 *   SLOW_...  the listed ranks run their tasks SLOW_FACTOR times slower
 *             (a process on a slowed core).
 * A task is 2 Mflop, charged on the simulated host (smpi_execute_flops),
 * and victims are drawn by a per-rank linear congruential generator:
 * with smpi/simulate-computation:no the run is the same every time.
 *
 * Rank 0 prints every rank's states as CSV lines "rank,state,start,end"
 * (consecutive Run intervals merged). */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TASK_FLOPS 2e6
#define TAG_REQUEST 1
#define TAG_REPLY 2
#define TAG_STOPPED 3
#define TAG_DONE 4
enum { RUN = 0, STEAL = 1 };

static double *spans; /* state, start, end triples */
static int nspans, capspans;

static void record(int state, double start, double end)
{
	if (end <= start)
		return;
	if (nspans > 0 && spans[3 * (nspans - 1)] == state && spans[3 * (nspans - 1) + 2] == start) {
		spans[3 * (nspans - 1) + 2] = end;
		return;
	}
	if (nspans == capspans) {
		capspans = capspans ? 2 * capspans : 1024;
		spans = realloc(spans, 3 * sizeof(double) * capspans);
		if (!spans)
			abort();
	}
	spans[3 * nspans] = state;
	spans[3 * nspans + 1] = start;
	spans[3 * nspans + 2] = end;
	nspans++;
}

static unsigned long long lcg;
static int draw(int n) /* uniform in [0, n) */
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int)((lcg >> 33) % (unsigned long long)n);
}

/* A thief has one request out at a time, so one reply buffer per rank
 * suffices. Replies are sent without waiting for their transfer: a victim
 * does not wait for a remote thief to receive. */
static long *reply;
static void answer(int thief)
{
	MPI_Request r;
	MPI_Isend(&reply[thief], 1, MPI_LONG, thief, TAG_REPLY, MPI_COMM_WORLD, &r);
	MPI_Request_free(&r);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4) {
		if (rank == 0)
			fprintf(stderr, "usage: worksteal TASKS PERIOD END [SLOW_FACTOR SLOW_RANK...]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	long total = atol(argv[1]);
	double period = atof(argv[2]);
	double end = atof(argv[3]);
	double flops = TASK_FLOPS;
	for (int i = 5; i < argc; i++)
		if (atoi(argv[i]) == rank)
			flops *= atof(argv[4]);
	lcg = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)(rank + 1) * 0xbf58476d1ce4e5b9ULL;

	/* Every period, an iteration's tasks appear, dealt unevenly: rank r
	 * gets from half to one and a half times its share, in a cycle of 8
	 * periods shifted by r, and those that finish first steal from the
	 * others. Over whole cycles every rank gets the same work. */
	long share = total / size;
	int period_index = 0;
	long tasks = 0;
	double next_release = 0;

	/* A request may arrive at any time: one receive always posted. */
	MPI_Request incoming;
	int dummy;
	reply = calloc(size, sizeof(long));
	MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &incoming);
	MPI_Status st;

	double t = MPI_Wtime();
	while (t < end) {
		if (t >= next_release) {
			tasks += share / 2 + share * ((rank + period_index++) % 8) / 7;
			next_release += period;
		}
		if (tasks > 0) {
			/* Answer the requests that arrived (a few: thieves that
			 * were refused ask again at once), then run one task. */
			int got, answered = 0;
			MPI_Test(&incoming, &got, &st);
			while (got && answered++ < 4) {
				reply[st.MPI_SOURCE] = tasks / 2;
				tasks -= reply[st.MPI_SOURCE];
				answer(st.MPI_SOURCE);
				MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &incoming);
				if (answered < 4)
					MPI_Test(&incoming, &got, &st);
			}
			smpi_execute_flops(flops);
			tasks--;
			double now = MPI_Wtime();
			record(RUN, t, now > end ? end : now);
			t = now;
			continue;
		}
		/* Steal: ask a random victim; answer others (nothing to give)
		 * while waiting for its reply. */
		int victim = draw(size - 1);
		victim += victim >= rank;
		long got_tasks = 0;
		MPI_Request reqs[2];
		MPI_Irecv(&got_tasks, 1, MPI_LONG, victim, TAG_REPLY, MPI_COMM_WORLD, &reqs[0]);
		MPI_Send(&dummy, 1, MPI_INT, victim, TAG_REQUEST, MPI_COMM_WORLD);
		for (;;) {
			int which;
			reqs[1] = incoming;
			MPI_Waitany(2, reqs, &which, &st);
			if (which == 0)
				break;
			reply[st.MPI_SOURCE] = 0;
			answer(st.MPI_SOURCE);
			MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &incoming);
		}
		tasks += got_tasks;
		double now = MPI_Wtime();
		record(STEAL, t, now > end ? end : now);
		t = now;
	}

	/* Stop: answer every request with nothing until all have stopped
	 * (a process stops only once its own request was answered, so none
	 * is left unanswered). Each process tells rank 0 it stopped; rank 0
	 * tells all when every one has. */
	int stopped = 1, flag = 0;
	MPI_Request done;
	if (rank == 0)
		MPI_Irecv(&flag, 1, MPI_INT, MPI_ANY_SOURCE, TAG_STOPPED, MPI_COMM_WORLD, &done);
	else {
		MPI_Send(&flag, 1, MPI_INT, 0, TAG_STOPPED, MPI_COMM_WORLD);
		MPI_Irecv(&flag, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD, &done);
	}
	for (;;) {
		if (rank == 0 && stopped == size) {
			for (int r = 1; r < size; r++)
				MPI_Send(&flag, 1, MPI_INT, r, TAG_DONE, MPI_COMM_WORLD);
			break;
		}
		MPI_Request reqs[2] = {done, incoming};
		int which;
		MPI_Waitany(2, reqs, &which, &st);
		if (which == 0) {
			if (rank != 0)
				break;
			if (++stopped < size)
				MPI_Irecv(&flag, 1, MPI_INT, MPI_ANY_SOURCE, TAG_STOPPED, MPI_COMM_WORLD, &done);
			continue;
		}
		reply[st.MPI_SOURCE] = 0;
		answer(st.MPI_SOURCE);
		MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &incoming);
	}
	MPI_Cancel(&incoming);
	MPI_Request_free(&incoming);

	/* Gather the states to rank 0, which prints them. */
	int *counts = NULL, *displs = NULL;
	double *all = NULL;
	int n = 3 * nspans;
	if (rank == 0)
		counts = malloc(size * sizeof(int)), displs = malloc(size * sizeof(int));
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		int sum = 0;
		for (int r = 0; r < size; r++)
			displs[r] = sum, sum += counts[r];
		all = malloc((sum ? sum : 1) * sizeof(double));
	}
	MPI_Gatherv(spans, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (int r = 0; r < size; r++)
			for (int i = displs[r]; i < displs[r] + counts[r]; i += 3)
				printf("%d,%s,%.9f,%.9f\n", r, all[i] == RUN ? "Run" : "Steal", all[i + 1], all[i + 2]);
		free(all), free(counts), free(displs);
	}
	free(spans);
	free(reply);
	MPI_Finalize();
	return 0;
}
