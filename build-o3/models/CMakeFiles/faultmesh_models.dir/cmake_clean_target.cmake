file(REMOVE_RECURSE
  "libfaultmesh_models.a"
)
