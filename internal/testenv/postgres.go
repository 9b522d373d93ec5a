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
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
			return "" // named, but not there
		}
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
// loudly (and always under -short, whose tier starts no server); in CI (CI=true) a missing PostgreSQL fails the test instead, so
// that the tests of the pool are never skipped there unnoticed.
func RequirePostgres(t testing.TB) string {
	t.Helper()
	SkipShort(t, "starts a PostgreSQL server")
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

// StartPostgres initialises and starts a server for the test, stopped
// and removed when it ends.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	p, err := LaunchPostgres(RequirePostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// LaunchPostgres initialises and starts a server with the binaries in bin
// (PostgresBin); Close stops and removes it.
func LaunchPostgres(bin string) (*Postgres, error) {
	if bin == "" {
		return nil, errors.New("PostgreSQL is not installed (apt-get install postgresql, or set PG_BIN)")
	}
	p := &Postgres{bin: bin}
	dir, err := os.MkdirTemp("", "refactord-pg-")
	if err != nil {
		return nil, err
	}
	p.dir = dir
	if err := p.initialise(); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	return p, nil
}

func (p *Postgres) initialise() error {
	if err := p.asServerUser(); err != nil {
		return err
	}
	var err error
	if p.port, err = freePort(); err != nil {
		return err
	}
	initdb := p.command("initdb", "-D", p.data(), "-A", "trust", "-U", "postgres", "--no-locale", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return p.launch()
}

// Close stops the server and removes its directory.
func (p *Postgres) Close() error {
	return errors.Join(p.halt(), os.RemoveAll(p.dir))
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

// Start starts the server again after Stop and waits until it answers.
func (p *Postgres) Start(t testing.TB) {
	t.Helper()
	if err := p.launch(); err != nil {
		t.Fatal(err)
	}
}

// launch starts the server and waits until it answers. It is tuned for
// tests, not durability (fsync off): a clean stop keeps every row, a crash
// of the machine would not.
func (p *Postgres) launch() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server != nil {
		return errors.New("postgres: already running")
	}
	cmd := p.command("postgres", "-D", p.data(), "-p", strconv.Itoa(p.port), "-k", p.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB")
	log, err := os.Create(filepath.Join(p.dir, "server.log"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return errors.Join(fmt.Errorf("postgres: %w", err), log.Close())
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // its exit is what halt and the readiness wait watch
		_ = log.Close()
		close(exited)
	}()
	p.server, p.exited = cmd, exited
	if err := p.waitReady(exited); err != nil {
		out, _ := os.ReadFile(filepath.Join(p.dir, "server.log"))
		return fmt.Errorf("postgres did not start: %w\n%s", err, out)
	}
	return nil
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
	if err := p.halt(); err != nil {
		t.Error(err)
	}
}

func (p *Postgres) halt() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server == nil {
		return nil
	}
	defer func() { p.server = nil }()
	if err := p.server.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("postgres: stop: %w", err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
		_ = p.server.Process.Kill() // it would not stop: reported below
		<-p.exited
		return errors.New("postgres: did not stop within 30 s")
	}
}

// URL is the address of database name on this server.
func (p *Postgres) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, name)
}

// NewDatabase creates an empty database for the test and answers its URL.
func (p *Postgres) NewDatabase(t testing.TB) string {
	t.Helper()
	url, err := p.CreateDatabase()
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// CreateDatabase creates an empty database and answers its URL.
func (p *Postgres) CreateDatabase() (string, error) {
	name := fmt.Sprintf("t%d", p.made.Add(1))
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close() //nolint:errcheck // an admin connection
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return p.URL(name), nil
}
