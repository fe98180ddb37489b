package critpath

// The Kineto traces of Holistic Trace Analysis tests, in the corpus.
const htaData = "../../../../shared/traces/hta/tests/data/"
