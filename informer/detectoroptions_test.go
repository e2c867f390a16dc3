package informer_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// plain is an object type without a DeepCopy method.
type plain struct {
	Namespace, Name, RV string
	Value               int
}

func (p *plain) GetNamespace() string         { return p.Namespace }
func (p *plain) GetName() string              { return p.Name }
func (p *plain) GetResourceVersion() string   { return p.RV }
func (p *plain) SetResourceVersion(rv string) { p.RV = rv }

// The detector copies with Options' Copy, else with T's DeepCopy, and an
// informer whose detector cannot copy never runs: every call says why.
// The environment turns the detector on, never off.
func TestMutationDetectorSetup(t *testing.T) {
	copyPlain := func(p *plain) *plain { c := *p; return &c }
	tests := []struct {
		name string
		env  string
		opts informer.MutationDetector[*plain]
		// wantErr is a part of the error of every call, "" for an
		// informer that runs.
		wantErr string
		// detects reports whether a mutation is reported.
		detects bool
	}{
		{name: "off", env: "false", detects: false},
		{name: "unset variable, off", env: "", detects: false},
		{name: "on without a copy", env: "false", opts: informer.MutationDetector[*plain]{Enabled: true},
			wantErr: "*informer_test.plain has no method DeepCopy() *informer_test.plain and Options.MutationDetector.Copy is nil"},
		{name: "on with a copy", env: "false", opts: informer.MutationDetector[*plain]{Enabled: true, Copy: copyPlain}, detects: true},
		{name: "variable on without a copy", env: "true", wantErr: "cannot copy objects"},
		{name: "variable on with a copy", env: "1", opts: informer.MutationDetector[*plain]{Copy: copyPlain}, detects: true},
		{name: "variable false does not turn off", env: "false", opts: informer.MutationDetector[*plain]{Enabled: true, Copy: copyPlain}, detects: true},
		{name: "variable not a boolean", env: "yes", opts: informer.MutationDetector[*plain]{Copy: copyPlain},
			wantErr: `TYPEDCACHE_CACHE_MUTATION_DETECTOR="yes": want true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(informer.MutationDetectorEnv, tt.env)
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(memsource.Options[*plain]{})
				if _, err := src.Create(&plain{Namespace: "ns", Name: "a", Value: 1}); err != nil {
					t.Fatal(err)
				}
				log := &errorLog{}
				inf := informer.New(src, informer.Options[*plain]{ErrorHandler: log.handle, MutationDetector: tt.opts})
				if tt.wantErr != "" {
					checkCannotRun(t, inf, tt.wantErr)
					return
				}
				stop := runDetected(t, inf)
				if err := inf.WaitForSync(t.Context()); err != nil {
					t.Fatalf("WaitForSync() = %v", err)
				}
				a, _ := inf.Cache().GetByKey("ns/a")
				a.Value = 2
				err := stop()
				if _, got := errors.AsType[*informer.CacheMutationError](err); got != tt.detects {
					t.Errorf("Run() = %v, want a *CacheMutationError: %t", err, tt.detects)
				}
				if got := len(log.mutations()) == 1; got != tt.detects {
					t.Errorf("reported %q, want a report: %t", log.mutations(), tt.detects)
				}
			})
		})
	}
}

// checkCannotRun checks that every call of inf fails with an error
// containing want.
func checkCannotRun(t *testing.T, inf *informer.Informer[*plain], want string) {
	t.Helper()
	_, addErr := inf.AddEventHandler(informer.HandlerFuncs[*plain]{})
	errs := map[string]error{
		"AddEventHandler": addErr,
		"AddIndexers":     inf.AddIndexers(nil),
		"WaitForSync":     inf.WaitForSync(t.Context()),
		"Run":             inf.Run(t.Context()),
	}
	for call, err := range errs {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s() = %v, want an error containing %q", call, err, want)
		}
	}
	if err := errs["Run"]; strings.Contains(want, "DeepCopy") && !errors.Is(err, informer.ErrCannotCopy) {
		t.Errorf("Run() = %v, want an error wrapping ErrCannotCopy", err)
	}
}

// touchy is an object whose comparison panics, in its Equal method.
type touchy struct{ plain }

func (p *touchy) Equal(*touchy) bool { panic("touchy") }
func (p *touchy) DeepCopy() *touchy  { c := *p; return &c }

// A comparison that panics (here the Equal method go-cmp calls for a
// modified object) is reported as an error, not a mutation.
func TestMutationDetectorComparisonPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*touchy]{})
		if _, err := src.Create(&touchy{plain{Namespace: "ns", Name: "a"}}); err != nil {
			t.Fatal(err)
		}
		log := &errorLog{}
		inf := informer.New(src, informer.Options[*touchy]{
			ErrorHandler:     log.handle,
			MutationDetector: informer.MutationDetector[*touchy]{Enabled: true},
		})
		stop := runDetected(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		a, _ := inf.Cache().GetByKey("ns/a")
		a.Value = 1
		if err := stop(); err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
		var got []string
		for _, err := range log.errs {
			got = append(got, err.Error())
		}
		want := []string{`informer: *informer_test.touchy: cache mutation detector: comparing "ns/a": comparison panicked: touchy`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("errors mismatch (-want +got):\n%s", diff)
		}
	})
}
