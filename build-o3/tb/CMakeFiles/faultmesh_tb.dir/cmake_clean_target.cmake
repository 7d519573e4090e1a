file(REMOVE_RECURSE
  "libfaultmesh_tb.a"
)
