module github.com/kubecache/kubecache

go 1.26

require (
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
