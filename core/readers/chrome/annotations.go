package chrome

import "strconv"

// gpuAnnotation is the category of the copies Kineto draws on a GPU
// stream of the host's annotations (record_function ranges, PyTorch
// profiler's ProfilerStep#N, DistributedDataParallel.forward, nccl:...):
// each spans the kernels launched within the host's range, from the first
// one's start to the last one's end, idle time of the stream between
// them included.
const gpuAnnotation = "gpu_user_annotation"

// annotationSuffix names the thread holding a stream's annotations.
const annotationSuffix = " (annotations)"

// splitGPUAnnotations moves the slices of category gpu_user_annotation of
// each thread to a thread of their own beside it, "<stream> (annotations)"
// (alias "<tid> (annotations)"), ranked with it. On the stream they
// enclosed its kernels, and the innermost state at every instant, which
// the models count, was the annotation wherever no kernel ran: a stream
// idle between two kernels of a step was in "ProfilerStep", and the steps
// were 38% of the time of a 4-rank training run on MI300 read as Kineto
// wrote it, more than any kernel. The GPU's own work is its kernels, copies
// and sets: Holistic Trace Analysis counts these annotations apart from
// the GPU's events (its "Post-Processed Annotations"), TraceLens's GPU
// timeline leaves them out, and Nsight Systems draws the ranges an
// annotation projects on the GPU on a row of their own under the stream's.
// So the stream keeps its work and its idle time, and the annotations are
// read whole beside it. It runs before the slices are nested, after the
// B/E pairs are matched.
func (c *collector) splitGPUAnnotations() {
	cat, ok := c.strs.Lookup(gpuAnnotation)
	if !ok {
		return
	}
	n := len(c.threads) // the threads made here hold annotations only
	for ti := range n {
		t := &c.threads[ti]
		moved := 0
		for i := range t.slices.len() {
			if t.slices.at(i).cat == cat {
				moved++
			}
		}
		if moved == 0 {
			continue
		}
		key := c.strs.id([]byte(c.strs.str(t.key) + annotationSuffix))
		ai := c.thread(c.procs[t.proc].key, key)
		t = &c.threads[ti] // c.thread may have grown c.threads
		a := &c.threads[ai]
		if t.name != none {
			a.name = c.strs.id([]byte(shownName(c.strs.str(t.name), c.strs.str(t.key)) + annotationSuffix))
		}
		switch {
		case t.hasSortIndex:
			a.sortIndex, a.hasSortIndex = t.sortIndex, true
		default:
			if r, err := strconv.ParseInt(c.strs.str(t.key), 10, 64); err == nil {
				a.sortIndex, a.hasSortIndex = r, true
			}
		}
		a.last, a.timed, a.open = t.last, t.timed, t.open
		var kept chunks[slice]
		for i := range t.slices.len() {
			s := t.slices.at(i)
			if s.cat == cat {
				*a.slices.add() = *s
			} else {
				*kept.add() = *s
			}
		}
		t.slices = kept
	}
}
