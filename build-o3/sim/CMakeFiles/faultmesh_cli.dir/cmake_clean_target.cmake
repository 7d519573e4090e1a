file(REMOVE_RECURSE
  "libfaultmesh_cli.a"
)
