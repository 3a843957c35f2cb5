"""A workload's copies placed one after another as the scheduler places them, in memory
only, to count how many fit: the rules the plugins export, scored or grouped runs, the first
copy that does not fit, and the running pods a change replaces."""
