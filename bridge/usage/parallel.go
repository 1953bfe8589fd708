package usage

import (
	"errors"
	"sync"
	"sync/atomic"
)

// eachGroup calls do(j) for every j in [0, n), workers at once, each
// worker taking the next j as it finishes one. Every j is done whatever
// fails; the error is each worker's first, joined.
func eachGroup(n, workers int, do func(j int) error) error {
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				j := int(next.Add(1)) - 1
				if j >= n {
					return
				}
				if err := do(j); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
