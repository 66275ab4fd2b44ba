// Package builtin holds what the real API server does to a built-in kind
// beyond checking its JSON types: the defaulters of every group it serves,
// the encoding of its Go types (Complete), and the registry's and default
// admission plugins' rules for new and updated objects (PrepareCreate,
// PrepareUpdate, ServiceAllocator), and the kinds' validators (Validate,
// ValidateUpdate) with the real causes and messages.
//
// The functions work on an object the server has decoded (its top-level
// members other than kind, apiVersion and metadata, as a jsonv object, and
// its parsed metadata), in place and without re-encoding, so the server
// runs them between decoding a body and storing it. The rules were read
// from the real server's defaulters (the pkg/apis/*/v1 defaults and the
// generated defaulting of each kind) at the 1.37 feature gate defaults.
//
// Write ties them together in the real server's order for one create or
// update (Write.Create, Write.Update) or status write (Write.Status);
// the server calls it between decoding a body and computing
// managedFields.
//
// Files: write.go (Write, Kind, Invalid; Decoded keeps a body's empty
// lists for the validators, Recorded drops them for the field manager),
// empty_lists.go (an update compared with the stored object, empty lists
// taken for absent ones), defaults.go (the kind table and Default), defaults_pod.go (pod
// spec, containers, probes, volumes), defaults_workloads.go (apps, batch,
// ReplicationController, PodTemplate), defaults_core.go (Service, Secret,
// volumes and claims, Endpoints, Namespace, Node, LimitRange),
// defaults_other.go (autoscaling, networking, RBAC, discovery, storage,
// scheduling, certificates, flow control, admission, resource,
// TokenRequest), image.go (an image reference's tag, which decides the pull
// policy), complete.go and complete_fields.go (Complete and its tables of
// the Go types' encoding; zz_generated_never_omitted.go and
// zz_generated_omitted.go, written by e2e/gotypes from the Go types, the
// never-omitted optional fields and zero timestamps, and the fields
// whose zero value is omitted), registry.go (PrepareCreate,
// PrepareUpdate: Secret stringData, Job selectors, finalizers, Node taint,
// ResourceSlice gated fields),
// registry_pod.go (a new Pod's status, QoS class, tolerations,
// priority and the label keys merged into its affinity and spread
// selectors), registry_pod_apparmor.go (a new Pod's AppArmor annotations
// copied into its containers' profiles, and their warnings), pod_level_defaults.go (a new Pod's pod-level requests and
// limits completed from the containers'), pod_gated_fields.go (the pod
// spec fields of gates off in 1.37, dropped), service_alloc.go (cluster
// IPs and node ports),
// service_families.go (what the Service registry settles before it
// allocates: clusterIP and clusterIPs in step, IP families and policy),
// service_ips.go (the rules tying a Service's cluster IPs, families and
// policy together, on create and update), service_type.go (the fields an
// update to another Service type drops), quantity.go
// (resource quantities as numbers), quantity_canonical.go (quantities in
// the canonical form the real server serves, applied by Complete), fielderror.go (FieldError, a 422's
// cause, and Message), validate.go (Validate, the kind table and the
// error helpers), validate_pod.go (pod specs, DNS config, host aliases),
// validate_pod_scheduling.go (affinity, topology spread),
// validate_pod_security.go (pod and container security contexts;
// shown_security_context.go quotes one as the real server does),
// validate_pod_lifecycle.go (lifecycle hooks, HTTP handlers),
// validate_pod_probes.go (probes by container kind, container restart
// policies and rules, host port conflicts), validate_pod_annotations.go
// (the pod-specific annotations of Pods and templates),
// validate_pod_volumes.go (the common volume sources' own rules),
// validate_pod_envfrom.go, validate_pod_devices.go (volumeDevices),
// validate_pod_gates.go (scheduling gates, hostnameOverride),
// validate_pod_resources.go (pod-level resources, resource claim
// references; pod_resource_sum.go adds the containers' quantities up),
// validate_pod_os.go (what spec.os.name forbids), validate_windows_options.go
// (Windows options, HostProcess), validate_workloads.go,
// validate_core.go, validate_other.go, validate_admission.go (webhook
// configurations, certificate signing requests), validate_flowcontrol.go
// (flow schemas, priority levels), validate_resource.go (device classes,
// claims, claim templates, resource slices, device taint rules),
// validate_device.go (a resource slice's devices),
// validate_device_update.go (a device's capacity and taints compared
// with the stored device's on an update), device_taint_time.go (a
// device taint's defaulted timeAdded),
// validate_device_counters.go (shared counters, counter consumption,
// binding conditions), validate_device_capacity.go (consumable capacity
// request policies), resource_slice_gates.go (the slice fields of gates
// off in 1.37, dropped unless the stored slice uses them), validate_node_annotations.go (a Node's taints
// and preferAvoidPods annotations, swap capacity, declared features),
// validate_network.go (service CIDRs, IP addresses, ingress classes),
// validate_topology.go (a StorageClass's allowed topologies)
// (each kind's rules), resource_requirements.go (a container's resource
// names, quantities, requests and limits), ipaddr.go (IP addresses and
// CIDRs as the strict validators read them),
// validate_update.go (ValidateUpdate: immutable fields),
// validate_status.go (Write.Status, PrepareStatusUpdate and
// ValidateStatusUpdate: writes to /status, their table and count
// helpers) with each kind's status rules in validate_status_core.go,
// validate_status_pod.go, validate_status_containers.go (container
// state transitions), validate_status_pod_users.go (container users,
// allocated resources' health), validate_status_pod_claims.go (the
// extended resource claim, gated status fields dropped),
// validate_status_resource.go (a ResourceClaim's allocation,
// reservedFor and device statuses), validate_status_taint_rule.go,
// validate_status_pcr.go (a PodCertificateRequest's conditions and
// issued chain),
// validate_status_workloads.go,
// validate_status_job.go, validate_status_certificates.go and
// validate_status_other.go (flow control, storage version migrations),
// validate_conditions.go (metav1.Condition lists), connect.go (the
// answers of pods/log, exec, attach, portforward and nodes/proxy without a
// kubelet), bootstrap.go and
// bootstrap.json (the objects a fresh real server creates for itself), selector.go
// (label selectors), names.go (key, port, variable and qualified
// name formats; labels and subdomains are internal/validation's), cron.go (CronJob
// schedules), edit.go (helpers that edit a jsonv object in place),
// warnings.go (the Warning headers the real strategies send on create
// and update), eviction.go (what pods/eviction checks of a pod and its
// disruption budgets, and the budget status an eviction writes),
// csr_approval.go (what an update of a CertificateSigningRequest's
// approval subresource stores, and its validation), conversions.go
// (Conversions: the kinds served at a version they are not stored at),
// hpa_convert.go, hpa_metrics.go and hpa_types.go (HorizontalPodAutoscalers
// between autoscaling/v1 and v2), event_convert.go (events.k8s.io/v1
// Events stored as core/v1 Events) and validate_event.go (an Event's
// rules by the API written through).
package builtin
