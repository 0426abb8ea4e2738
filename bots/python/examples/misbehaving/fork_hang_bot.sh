#!/bin/sh
# Misbehaving raw protocol bot (no adapter): forks a child that keeps stdout open and
# ignores SIGTERM, then hangs on its first turn (-> timeout; nothing may survive the game).
trap '' TERM
read hello
echo '{"type":"ready","name":"fork-hang"}'
(trap '' TERM; while :; do sleep 1; done) &
read turn
while :; do sleep 1; done
