/* A few StarPU tasks on vector blocks (scale, then add, with dependencies
   through data handles), traced with FxT: testdata/starpu-1.3.10.trace.

   Built against a StarPU 1.3.10 configured --with-fxt (Debian's is not):
     cc starpu_tasks.c -o tasks $(pkg-config --cflags --libs starpu-1.3)
     STARPU_FXT_PREFIX=$PWD/ STARPU_NCPU=2 ./tasks
     starpu_fxt_tool -i prof_file__0     (writes paje.trace, tasks.rec...)

   StarPU's dates are milliseconds: the run took 0.94 s of wall time, its
   paje.trace ends at 684.465309. */
#include <starpu.h>
#include <stdio.h>
#define N 4096
#define NB 8
static void scal(void *buffers[], void *arg) {
	(void)arg;
	float *v = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (int r = 0; r < 2000; r++)
		for (unsigned i = 0; i < n; i++) v[i] = v[i] * 1.0001f + 0.5f;
}
static void add(void *buffers[], void *arg) {
	(void)arg;
	float *a = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	float *b = (float *)STARPU_VECTOR_GET_PTR(buffers[1]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (int r = 0; r < 1000; r++)
		for (unsigned i = 0; i < n; i++) a[i] += b[i] * 0.5f;
}
static struct starpu_codelet scal_cl = {.cpu_funcs = {scal}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "scal"};
static struct starpu_codelet add_cl = {.cpu_funcs = {add}, .nbuffers = 2, .modes = {STARPU_RW, STARPU_R}, .name = "add"};
int main(void) {
	static float x[NB][N], y[NB][N];
	starpu_data_handle_t hx[NB], hy[NB];
	if (starpu_init(NULL) != 0) return 77;
	for (int b = 0; b < NB; b++) {
		starpu_vector_data_register(&hx[b], STARPU_MAIN_RAM, (uintptr_t)x[b], N, sizeof(float));
		starpu_vector_data_register(&hy[b], STARPU_MAIN_RAM, (uintptr_t)y[b], N, sizeof(float));
	}
	for (int it = 0; it < 3; it++)
		for (int b = 0; b < NB; b++) {
			starpu_task_insert(&scal_cl, STARPU_RW, hx[b], 0);
			starpu_task_insert(&scal_cl, STARPU_RW, hy[b], 0);
			starpu_task_insert(&add_cl, STARPU_RW, hx[b], STARPU_R, hy[b], 0);
		}
	starpu_task_wait_for_all();
	for (int b = 0; b < NB; b++) {
		starpu_data_unregister(hx[b]);
		starpu_data_unregister(hy[b]);
	}
	starpu_shutdown();
	printf("%d tasks\n", 3 * NB * 3);
	return 0;
}
