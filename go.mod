module github.com/kubecache/kubecache

go 1.26

require (
	github.com/gorilla/websocket v1.5.3
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/kr/text v0.2.0 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
