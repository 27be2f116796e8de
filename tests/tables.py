"""The few tables of policies the fast tests play.

numba compiles a kernel for each table of policies (the set of choosers at it,
playout.batch_kernel; a traced game and a checking run have kernels of their own), tens of
seconds each from an empty cache.  A test that is not about a policy plays ``random`` (the
fastest), ``greedy`` or the default (``learned``), ``random`` beside ``greedy``, or, to play a
search, the table below: both searches, greedy and random, in one kernel.
"""
SEARCH = ["ismcts", "rollout", "greedy", "random"]
SEARCH_PARAMS = {"ismcts": {"budget": 4, "horizon": 1}, "rollout": {"budget": 4, "horizon": 1}}
