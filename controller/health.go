package controller

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// A Checker is a health or readiness check: it returns nil when the check
// passes, or why it fails. It is called for each request to the endpoint,
// with that request, and may be called by several requests at once.
type Checker func(req *http.Request) error

// check is a named Checker.
type check struct {
	name string
	fn   Checker
}

// checks is a list of checks, in the order they were added.
type checks []check

// Names of the built-in readiness checks.
const (
	checkManager   = "manager"
	checkRunnables = "runnables"
	checkElection  = "leader-election"
)

// AddHealthzCheck adds a liveness check, served at /healthz (with the
// others) and /healthz/NAME. It returns an error for an empty name, a
// name with a slash or already in use, or a nil check.
func (m *Manager) AddHealthzCheck(name string, check Checker) error {
	return m.addCheck(&m.healthz, "healthz", name, check)
}

// AddReadyzCheck adds a readiness check, served at /readyz (with the
// others) and /readyz/NAME. It returns an error for an empty name, a name
// with a slash or already in use (the built-in checks' names included),
// or a nil check.
func (m *Manager) AddReadyzCheck(name string, check Checker) error {
	return m.addCheck(&m.readyz, "readyz", name, check)
}

func (m *Manager) addCheck(cs *checks, endpoint, name string, fn Checker) error {
	if name == "" || strings.Contains(name, "/") || fn == nil {
		return fmt.Errorf("controller: %s check %q: need a name without a slash and a function", endpoint, name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	taken := slices.ContainsFunc(*cs, func(c check) bool { return c.name == name })
	if endpoint == "readyz" {
		taken = taken || name == checkManager || name == checkRunnables || name == checkElection
	}
	if taken {
		return fmt.Errorf("controller: %s check %q already exists", endpoint, name)
	}
	*cs = append(*cs, check{name, fn})
	return nil
}

// healthChecks returns the liveness checks.
func (m *Manager) healthChecks() checks {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.healthz)
}

// readyChecks returns the readiness checks, the built-in ones first.
func (m *Manager) readyChecks() checks {
	cs := checks{
		{checkManager, func(*http.Request) error { return m.syncError() }},
		{checkRunnables, func(*http.Request) error { return m.runnablesError() }},
	}
	if m.opts.Elector != nil {
		cs = append(cs, check{checkElection, func(*http.Request) error { return m.roleError() }})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return append(cs, m.readyz...)
}

// syncError returns why the manager is not running with synced
// informers, or nil.
func (m *Manager) syncError() error {
	m.mu.Lock()
	stopping := m.stopping
	m.mu.Unlock()
	select {
	case <-stopping:
		return errors.New("stopping")
	default:
	}
	if !m.synced.Load() {
		return errors.New("informers not synced")
	}
	return nil
}

// runnablesError names the running Syncers that have not synced, or
// returns nil.
func (m *Manager) runnablesError() error {
	m.mu.Lock()
	entries := m.runnables
	m.mu.Unlock()
	var waiting []string
	for _, e := range entries {
		if s, ok := e.r.(Syncer); ok && e.running.Load() && !s.HasSynced() {
			waiting = append(waiting, e.name)
		}
	}
	if len(waiting) > 0 {
		return fmt.Errorf("not synced: %s", strings.Join(waiting, ", "))
	}
	return nil
}

// handler returns the handler of the HTTP endpoints.
func (m *Manager) handler() http.Handler {
	mux := http.NewServeMux()
	for endpoint, list := range map[string]func() checks{"healthz": m.healthChecks, "readyz": m.readyChecks} {
		mux.HandleFunc("GET /"+endpoint, func(w http.ResponseWriter, req *http.Request) {
			serveAll(w, req, endpoint, list())
		})
		mux.HandleFunc("GET /"+endpoint+"/{name}", func(w http.ResponseWriter, req *http.Request) {
			serveOne(w, req, list())
		})
	}
	if m.opts.Metrics != nil {
		mux.Handle("/metrics", m.opts.Metrics)
	}
	return mux
}

// serveAll runs every check and answers 200 "ok" when all pass (or the
// list of checks with the query parameter verbose), and 500 with the list
// otherwise.
func serveAll(w http.ResponseWriter, req *http.Request, endpoint string, cs checks) {
	var b strings.Builder
	failed := false
	for _, c := range cs {
		if err := c.fn(req); err != nil {
			failed = true
			fmt.Fprintf(&b, "[-]%s failed: %v\n", c.name, err)
		} else {
			fmt.Fprintf(&b, "[+]%s ok\n", c.name)
		}
	}
	header(w)
	if failed {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "%s%s check failed\n", b.String(), endpoint)
		return
	}
	if req.URL.Query().Has("verbose") {
		fmt.Fprintf(w, "%s%s check passed\n", b.String(), endpoint)
		return
	}
	fmt.Fprint(w, "ok")
}

// serveOne runs the check named by the request's path: 200 "ok" when it
// passes, 500 with the reason when it fails, 404 when there is none.
func serveOne(w http.ResponseWriter, req *http.Request, cs checks) {
	i := slices.IndexFunc(cs, func(c check) bool { return c.name == req.PathValue("name") })
	if i < 0 {
		http.NotFound(w, req)
		return
	}
	err := cs[i].fn(req)
	header(w)
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "internal server error: %v\n", err)
		return
	}
	fmt.Fprint(w, "ok")
}

// header sets the headers of a check's answer.
func header(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}
