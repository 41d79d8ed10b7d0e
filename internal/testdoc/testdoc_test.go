package testdoc

import (
	"bytes"
	"testing"
)

// The fake documents are what golden files are made from: the same options
// must give byte-identical documents.
func TestDeterministic(t *testing.T) {
	a, err := Doc(Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Doc(Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := a.Encode()
	jb, _ := b.Encode()
	if !bytes.Equal(ja, jb) {
		t.Fatal("two documents from the same options differ")
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(a.Failures) != 0 {
		t.Fatalf("failures: %v", a.Failures)
	}
	want := 0
	for _, c := range LadderCells {
		want += len(c.Placements)
	}
	if len(a.Results) != want {
		t.Fatalf("%d results, want %d", len(a.Results), want)
	}
	c, _ := Doc(Options{Seed: 2})
	if c.Results[0].OneWayNS.Median == a.Results[0].OneWayNS.Median {
		t.Fatal("another seed gave the same draw")
	}
}

// Off x86-64 a golden file holds when only last digits differ (FMA); text,
// a number's size or a number added or lost still differ.
func TestLastDigits(t *testing.T) {
	want := []byte("a,208.0225331463539,0.95,x 3 ns\n")
	for got, ok := range map[string]bool{
		"a,208.02253314635394,0.95,x 3 ns\n": true,
		"a,208.0225331463539,0.95,x 3 ns\n":  true,
		"a,208.03,0.95,x 3 ns\n":             false,
		"a,208.0225331463539,0.95,y 3 ns\n":  false,
		"a,208.0225331463539,0.95,x 4 ns\n":  false,
		"a,208.0225331463539,0.95,x ns\n":    false,
	} {
		if lastDigits(want, []byte(got)) != ok {
			t.Errorf("%q against %q: want %v", got, want, ok)
		}
	}
}
