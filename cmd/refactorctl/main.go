// Command refactorctl is the command-line client of refactord, for CI jobs
// and operators: it refactors one method or a batch, watches the run's
// progress stream, prints a unified diff, and reads the audit trail.
//
// Everything the process touches (arguments, environment, standard streams,
// clock, sleeping, randomness, the terminal check) reaches the code through
// run or newCLI, so tests drive it in-process against a real service.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A signal cancels the run's context: the stream is closed, and the
	// service stops a run whose client went away before release.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newCLI(os.Environ(), os.Stdin, os.Stdout, os.Stderr).main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// run is one invocation with the real clock: args without the program name,
// env as KEY=VALUE pairs (os.Environ's form). It returns the exit code.
func run(args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newCLI(env, stdin, stdout, stderr).main(context.Background(), args)
}
