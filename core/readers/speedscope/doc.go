// Package speedscope reads speedscope's JSON file format
// (https://www.speedscope.app/file-format-schema.json), which py-spy
// (--format speedscope), rbspy, Austin (austin2speedscope), pyinstrument's
// speedscope renderer and speedscope's own exports write.
//
// A file holds a table of frames (shared.frames) and profiles, one per
// thread, each of which becomes a container whose states are its frames,
// nested by call depth. An evented profile gives the instant each frame
// opens (O) and closes (C). A sampled profile gives stacks (frame indices,
// root first) and their weights but no timestamps: a sample's time is the
// running sum of the weights before it, from the profile's startValue, as
// speedscope's "time order" view draws it. Consecutive samples that share
// a stack prefix keep those frames open.
//
// Values are in the profile's unit: nanoseconds to seconds are converted;
// "none" (counts) and "bytes" (memory) have no time and are refused.
package speedscope
