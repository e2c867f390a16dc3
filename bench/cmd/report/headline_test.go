package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestReplaceHeadline(t *testing.T) {
	readme := []byte("intro\n" + headlineStart + "\n\nold table\n" + headlineEnd + "\noutro\n")
	got, err := replaceHeadline(readme, "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n" + headlineStart + "\n\nnew table\n\n" + headlineEnd + "\noutro\n"
	if string(got) != want {
		t.Errorf("replaceHeadline() = %q, want %q", got, want)
	}
	if _, err := replaceHeadline([]byte("no markers"), "x"); !errors.Is(err, errNoHeadline) {
		t.Errorf("replaceHeadline(no markers) error = %v, want %v", err, errNoHeadline)
	}
}

// TestReadmeHeadlineMatchesResults checks that the README's headline
// table is the one the committed full run (results.txt) gives, so that
// the README cannot quote other figures. UPDATE_README=1 rewrites it.
func TestReadmeHeadlineMatchesResults(t *testing.T) {
	raw, err := os.ReadFile("../../" + rawName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var info runInfo
	info.restore(res.config)
	const path = "../../../README.md"
	if os.Getenv("UPDATE_README") != "" {
		if err := updateReadme(path, info, evaluate(res)); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeHeadline(&b, info, evaluate(res))
	want, err := replaceHeadline(readme, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readme, want) {
		t.Errorf("the README's headline table differs from what %s gives; run the full report, or UPDATE_README=1 go test -run TestReadmeHeadline ./cmd/report", rawName)
	}
}
