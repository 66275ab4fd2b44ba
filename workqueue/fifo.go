package workqueue

// fifo is a first-in first-out ring buffer of items: the ready part of the
// queue, in the order Get hands items out. It is not safe for concurrent use;
// the Queue's mutex guards it.
type fifo[K comparable] struct {
	buf  []K
	head int // index of the oldest item
	n    int // number of items
}

// len returns the number of items held.
func (f *fifo[K]) len() int { return f.n }

// push appends item at the back, growing the buffer when it is full.
func (f *fifo[K]) push(item K) {
	if f.n == len(f.buf) {
		f.grow()
	}
	f.buf[(f.head+f.n)%len(f.buf)] = item
	f.n++
}

// pop removes and returns the oldest item. The fifo must not be empty.
func (f *fifo[K]) pop() K {
	var zero K
	item := f.buf[f.head]
	f.buf[f.head] = zero // do not keep a reference to a handed-out key
	f.head = (f.head + 1) % len(f.buf)
	f.n--
	if f.n == 0 {
		f.head = 0
	}
	return item
}

// grow doubles the buffer (to at least 16), unrolling the ring so the oldest
// item is at index 0.
func (f *fifo[K]) grow() {
	buf := make([]K, max(16, 2*len(f.buf)))
	for i := range f.n {
		buf[i] = f.buf[(f.head+i)%len(f.buf)]
	}
	f.buf, f.head = buf, 0
}
