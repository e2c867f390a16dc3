package priorityqueue_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

// The environment of a child process that runs one scenario for a scenario
// benchmark (see TestScenarioChild).
const (
	envScenario = "PRIORITYQUEUE_SCENARIO" // "scenario/implementation", as in scenarios and implementations
	envResult   = "PRIORITYQUEUE_RESULT"   // the file the child writes its metrics to, as JSON
)

// A scenario drives a queue built by newQueue and returns what it measured,
// by benchmark unit. It must run in a synctest bubble.
type scenario func(newQueue func() workQueue[int]) (map[string]float64, error)

// scenarios lists the scenarios a child process can run, by name.
var scenarios = map[string]scenario{
	"restart":            restartMetrics,
	"starvation":         starvationMetrics(0),
	"starvation-backlog": starvationMetrics(30_000),
}

// TestScenarioChild runs, in a synctest bubble, the scenario that
// envScenario names, and writes its metrics to the file envResult names. A
// scenario benchmark starts it in a child process (runChild); without
// envScenario it has nothing to do.
func TestScenarioChild(t *testing.T) {
	spec := os.Getenv(envScenario)
	if spec == "" {
		t.Skip("run by the scenario benchmarks in a child process")
	}
	name, implName, _ := strings.Cut(spec, "/")
	run, ok := scenarios[name]
	if !ok {
		t.Fatalf("%s=%q: no scenario %q", envScenario, spec, name)
	}
	i := slices.IndexFunc(implementations[int](), func(impl implementation[int]) bool { return impl.name == implName })
	if i < 0 {
		t.Fatalf("%s=%q: no implementation %q", envScenario, spec, implName)
	}
	var metrics map[string]float64
	synctest.Test(t, func(t *testing.T) {
		var err error
		if metrics, err = run(implementations[int]()[i].newQueue); err != nil {
			t.Fatal(err)
		}
	})
	data, err := json.Marshal(metrics)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(envResult), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runChild runs scenario name on implementation impl in a child process of
// this test binary and returns its metrics.
func runChild(b *testing.B, name, impl string) map[string]float64 {
	b.Helper()
	result := filepath.Join(b.TempDir(), "metrics.json")
	args := []string{"-test.run", "^TestScenarioChild$", "-test.count", "1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envScenario+"="+name+"/"+impl, envResult+"="+result)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("scenario %s/%s: %v\n%s", name, impl, err, out)
	}
	data, err := os.ReadFile(result)
	if err != nil {
		b.Fatal(err)
	}
	var metrics map[string]float64
	if err := json.Unmarshal(data, &metrics); err != nil {
		b.Fatal(fmt.Errorf("scenario %s/%s: %w", name, impl, err))
	}
	return metrics
}

// benchScenario runs scenario name once per iteration for each
// implementation, each run in a child process, and reports the median of
// each metric over the runs (in virtual time, the runs measure nearly the
// same).
func benchScenario(b *testing.B, name string) {
	for _, impl := range implementations[int]() {
		b.Run("impl="+impl.name, func(b *testing.B) {
			byUnit := make(map[string][]float64)
			for b.Loop() {
				for unit, v := range runChild(b, name, impl.name) {
					byUnit[unit] = append(byUnit[unit], v)
				}
			}
			for unit, vs := range byUnit {
				slices.Sort(vs)
				b.ReportMetric(vs[len(vs)/2], unit)
			}
		})
	}
}
