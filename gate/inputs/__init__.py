"""Inputs: files, directories and standard input -> documents -> workloads with their pod
templates. Never imports the snapshot, the scheduler or the reports."""
