// Package packaging holds what the container image is made of besides the
// binaries (packaging/rootfs: the unprivileged user) and the tests that
// build the image with `make image` and run it with podman: alone, as the
// quick start does, and as two workers of a pool.
package packaging
