// Command tidal is the tidal database server.
//
//	tidal serve [-D DATADIR] [-p PORT] [--listen ADDR] [-c name=value ...]
//
// It listens on 127.0.0.1:5433 and keeps its data in ./tidal-data unless
// told otherwise, creating the data directory on first start.
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableams"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/session"
	"github.com/tidal-db/tidal/internal/wal"
)

type settingFlags map[string]string

func (s settingFlags) String() string { return "" }
func (s settingFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("-c needs name=value, got %q", v)
	}
	s[strings.ToLower(strings.ReplaceAll(k, "-", "_"))] = val
	return nil
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "serve" && os.Args[1] != "version") {
		fmt.Fprintf(os.Stderr, "usage: tidal serve [-D DATADIR] [-p PORT] [--listen ADDR] [-c name=value ...]\n       tidal version\n")
		os.Exit(2)
	}
	if os.Args[1] == "version" {
		fmt.Println("tidal 0.1 (PostgreSQL 17 compatible)")
		return
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	dir := fs.String("D", "tidal-data", "data directory")
	port := fs.Int("p", 5433, "TCP port")
	listen := fs.String("listen", "127.0.0.1", "comma-separated listen addresses")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file until shutdown (for developers)")
	blockprofile := fs.String("blockprofile", "", "write a goroutine blocking profile (channel, mutex and cond waits) to this file at shutdown (for developers)")
	mutexprofile := fs.String("mutexprofile", "", "write a mutex contention profile to this file at shutdown (for developers)")
	sets := settingFlags{}
	fs.Var(sets, "c", "set a configuration parameter (name=value), repeatable")
	fs.Parse(os.Args[2:])
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "FATAL: ", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *blockprofile != "" {
		runtime.SetBlockProfileRate(int(10 * time.Microsecond))
		defer writeProfile("block", *blockprofile)
	}
	if *mutexprofile != "" {
		runtime.SetMutexProfileFraction(10)
		defer writeProfile("mutex", *mutexprofile)
	}
	if err := serve(*dir, *port, *listen, sets); err != nil {
		pprof.StopCPUProfile()
		pe := pgerr.From(err)
		msg := "FATAL:  " + pe.Message
		if pe.Detail != "" {
			msg += "\nDETAIL:  " + pe.Detail
		}
		if pe.Hint != "" {
			msg += "\nHINT:  " + pe.Hint
		}
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
}

// writeProfile writes the named runtime profile (block, mutex) to path.
func writeProfile(name, path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "WARNING: ", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "WARNING: ", err)
	}
}

func serve(dir string, port int, listen string, sets settingFlags) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := engine.CheckDataDir(abs); err != nil {
		return err
	}
	// Settings: tidal.conf, then -c on the command line.
	conf, err := guc.ReadConf(filepath.Join(abs, "tidal.conf"))
	if err != nil {
		return err
	}
	for k, v := range sets {
		d, err := guc.Lookup(k)
		if err != nil {
			return err
		}
		nv, err := d.Normalize(v)
		if err != nil {
			return err
		}
		conf[strings.ToLower(d.Name)] = nv
	}
	get := func(name string) string {
		d, _ := guc.Lookup(name)
		if v, ok := conf[strings.ToLower(d.Name)]; ok {
			return v
		}
		return d.Default
	}
	cfg := engine.DefaultConfig(abs)
	sbDef, _ := guc.Lookup("shared_buffers")
	cfg.SharedBuffers = int(sbDef.Bytes(get("shared_buffers")))
	cfg.Fsync = get("fsync") == "on"
	cfg.FullPageWrites = get("full_page_writes") == "on"
	if cfg.WALCompression, err = wal.ParseCompression(get("wal_compression")); err != nil {
		return err
	}
	if err := cfg.ApplyIOSettings(get); err != nil {
		return err
	}
	cfg.ApplyLockSettings(get)
	ct, _ := strconv.Atoi(get("checkpoint_timeout"))
	cfg.CheckpointTimeout = time.Duration(ct) * time.Second
	cfg.Writer = writerConfig(get)

	// Refuse a foreign or damaged directory before writing anything in it.
	if err := engine.CheckDataDir(abs); err != nil {
		return err
	}
	logw := io.Writer(os.Stderr)
	if err := os.MkdirAll(filepath.Join(abs, "log"), 0o700); err == nil {
		if f, err := os.OpenFile(filepath.Join(abs, "log", "tidal.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			defer f.Close()
			logw = io.MultiWriter(os.Stderr, f)
		}
	}
	logger := log.New(logw, "", log.Ldate|log.Ltime|log.Lmicroseconds|log.LUTC)
	cfg.Logger = logger

	cfg.AccessMethods = tableams.Builtin()

	eng, err := engine.Open(cfg)
	if err != nil {
		return err
	}
	var addrs []string
	for _, a := range strings.Split(listen, ",") {
		a = strings.TrimSpace(a)
		if a == "*" {
			a = "0.0.0.0"
		}
		addrs = append(addrs, net.JoinHostPort(a, strconv.Itoa(port)))
	}
	sessions := session.NewServer(eng, conf)
	session.StartAutovacuum(eng, conf)
	srv := pgwire.NewServer(pgwire.Config{ListenAddrs: addrs, Logger: logger, Authenticator: sessions.Authenticator()}, sessions)
	if err := srv.Listen(); err != nil {
		eng.Close()
		return err
	}
	logger.Printf("LOG:  listening on %s", strings.Join(addrs, ", "))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(context.Background()) }()
	select {
	case <-ctx.Done():
		logger.Printf("LOG:  received shutdown request")
	case err := <-errc:
		if err != nil {
			logger.Printf("LOG:  server stopped: %v", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	srv.Shutdown(sctx)
	cancel()
	return eng.Close()
}
