"""What every plugin is made of and what it reads: the pod prepared once, the snapshot's
nodes and pods indexed, the one list of filters run, and how scores add up
(upstream ``pkg/scheduler/framework``)."""
