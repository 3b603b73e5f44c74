"""Running benchmarks off the UI thread: the run panel, the controller and its worker."""
