#!/usr/bin/env bash
# Sourced by sim/setup.sh and sim/run_fuzz.sh: install_packages TAG PKG... installs the
# Debian packages of the list that are missing (apt-get; sudo when not root), saying
# which under TAG.
install_packages() {
  local tag=$1
  shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "$tag: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"
}
