// Command go-cpu burns CPU in main.burn for a while and writes a CPU
// profile of itself (gzip-compressed pprof, as runtime/pprof writes it) to
// the file named by its argument. tests/data/make-go-profile.sh runs it to
// produce go-cpu.pb.gz, the Go-written profile the pprof decoder is tested
// against.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

var sink uint64

//go:noinline
func burn(d time.Duration) {
	x := uint64(1)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 100000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink = x
}

//go:noinline
func work() {
	burn(400 * time.Millisecond)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go-cpu OUTPUT")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	work()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
