package cache

// The package's tests check every key handed to Indexer.Put against the
// Indexer's KeyFunc, custom ones included.
func init() { verifyPutKeys = true }
