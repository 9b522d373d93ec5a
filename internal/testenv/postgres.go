package testenv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Postgres is a real PostgreSQL server from the system's package (Debian's
// postgresql), made for one test: initdb in a temporary directory, the
// server on a loopback port and a unix socket in that directory, stopped
// and removed at the test's end. No container. As root (CI) the server runs
// as the postgres user, since initdb refuses root.
type Postgres struct {
	bin, dir string
	port     int
	cred     *syscall.Credential
	made     atomic.Int64

	mu     sync.Mutex
	server *exec.Cmd
	exited chan struct{}
}

// PostgresBin is where the server's binaries are: PG_BIN when set, else
// the newest /usr/lib/postgresql/N/bin, else the directory of initdb on
// PATH; "" when there is none.
func PostgresBin() string {
	if dir := os.Getenv("PG_BIN"); dir != "" {
		return dir
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool { return versionOf(found[i]) > versionOf(found[j]) })
	if len(found) > 0 {
		return filepath.Dir(found[0])
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func versionOf(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// RequirePostgres answers the binaries' directory, or skips the test
// loudly; in CI (CI=true) a missing PostgreSQL fails the test instead, so
// that the tests of the pool are never skipped there unnoticed.
func RequirePostgres(t testing.TB) string {
	t.Helper()
	bin := PostgresBin()
	if bin != "" {
		return bin
	}
	const msg = "PostgreSQL is not installed (apt-get install postgresql, or set PG_BIN): the PostgreSQL tests cannot run"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("*** " + msg + " ***")
	return ""
}

// StartPostgres initialises and starts a server for the test.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	p := &Postgres{bin: RequirePostgres(t)}
	dir, err := os.MkdirTemp("", "refactord-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() {
		p.Stop(t)
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("remove %s: %v", dir, err)
		}
	})
	if err := p.asServerUser(); err != nil {
		t.Fatal(err)
	}
	if p.port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	initdb := p.command("initdb", "-D", p.data(), "-A", "trust", "-U", "postgres", "--no-locale", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	p.Start(t)
	return p
}

// asServerUser makes the directory the postgres user's when the tests run
// as root, and the server run as that user.
func (p *Postgres) asServerUser() error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root, PostgreSQL needs the postgres user: %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return err
	}
	p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return os.Chown(p.dir, uid, gid)
}

func (p *Postgres) data() string { return filepath.Join(p.dir, "data") }

func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "HOME="+p.dir)
	cmd.Dir = p.dir
	// The server dies with the test process, even when that is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred, Pdeathsig: syscall.SIGKILL}
	return cmd
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// Start starts the server (again, after Stop) and waits until it answers.
// It is tuned for tests, not durability (fsync off): a clean stop keeps
// every row, a crash of the machine would not.
func (p *Postgres) Start(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server != nil {
		t.Fatal("postgres: already running")
	}
	cmd := p.command("postgres", "-D", p.data(), "-p", strconv.Itoa(p.port), "-k", p.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB")
	log, err := os.Create(filepath.Join(p.dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // its exit is what Stop and the readiness wait watch
		_ = log.Close()
		close(exited)
	}()
	p.server, p.exited = cmd, exited
	if err := p.waitReady(exited); err != nil {
		out, _ := os.ReadFile(filepath.Join(p.dir, "server.log"))
		t.Fatalf("postgres did not start: %v\n%s", err, out)
	}
}

func (p *Postgres) waitReady(exited <-chan struct{}) error {
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close() //nolint:errcheck // a probe
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("the server exited")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return err
		}
	}
}

// Stop stops the server (a fast shutdown: connections are closed, every
// committed row is kept). Stopping a stopped server does nothing.
func (p *Postgres) Stop(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server == nil {
		return
	}
	if err := p.server.Process.Signal(syscall.SIGINT); err != nil {
		t.Errorf("postgres: stop: %v", err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.server.Process.Kill() // it would not stop: the test fails anyway
		<-p.exited
		t.Error("postgres: did not stop within 30 s")
	}
	p.server = nil
}

// URL is the address of database name on this server.
func (p *Postgres) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, name)
}

// NewDatabase creates an empty database and answers its URL.
func (p *Postgres) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d", p.made.Add(1))
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close() //nolint:errcheck // an admin connection
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	return p.URL(name)
}
