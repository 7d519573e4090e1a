# CMake generated Testfile for 
# Source directory: /work/main/sim
# Build directory: /work/main/build-o3/sim
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
