package gcstart

import (
	"runtime/debug"
	"testing"
)

func TestHeldUntilRelease(t *testing.T) {
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("during initialisation the growth target was %d, want the collector off (-1)", got)
	}
	want := held
	if want == -1 {
		t.Fatal("held is -1: the hold recorded itself instead of the setting before it")
	}
	if got := Release(); got != want {
		t.Fatalf("Release() = %d, want %d", got, want)
	}
	if got := debug.SetGCPercent(want); got != want {
		t.Fatalf("after Release the growth target is %d, want %d", got, want)
	}
}
