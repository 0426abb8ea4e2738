#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder's image is built, with the
# uploaded zip unpacked in /autograder/source. It installs what the course's bots run on:
# Python 3 with numpy (course Python bots), a JDK (Java players), and setpriv, with which
# arbiter's jail drops to an ordinary user. arbiter itself is in the zip: a release build
# (`cargo build --release`, then target/release/arbiter and target/release/arbiter-jail)
# of a Linux x86-64 machine.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends python3 python3-numpy openjdk-17-jdk-headless util-linux
chmod +x /autograder/source/arbiter /autograder/source/arbiter-jail /autograder/source/run_autograder
/autograder/source/arbiter doctor || true
