// Package clientgo runs k8s.io/client-go against the e2e target, the fake
// server and a real kube-apiserver alike: typed, dynamic and metadata-only
// informers (each with streaming lists on and off), typed CRUD and its
// error classes, server-side apply, the event recorder and leader election
// on a Lease. It shows that code written for client-go can be tested
// against kubecache's fake server unchanged, with client-go's default
// rest.Config.
//
// Files (tests only):
//
//	informer_test.go  the three informers, with the watch-list gate set per row
//	crud_test.go      typed CRUD, server-side apply, the event recorder, leader election
//	protobuf_test.go  the default rest.Config speaks protobuf both ways: delete
//	                  options, Scale, the apiextensions clientset creating a CRD
package clientgo
