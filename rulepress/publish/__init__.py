"""Build: refuse on any problem, stage every output, swap it in atomically."""
