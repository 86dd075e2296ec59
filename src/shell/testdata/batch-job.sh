# Jobs: a short script runs to completion and its output is in the log; parallel completions; a failing Job backs off to BackoffLimitExceeded; the docs' pi Job
$ kubectl create job hello --image=busybox -- sh -c 'echo hello; sleep 5'
$ kubectl get jobs
$ kubectl wait --for=condition=complete job/hello --timeout=60s
$ kubectl get jobs -o wide
$ kubectl logs job/hello
$ kubectl get pods
$ kubectl describe job hello
$ kubectl get job hello -o jsonpath='{.status}'
$ kubectl create job pi --image=perl:5.34.0 -- perl -Mbignum=bpi -wle 'print bpi(200)'
$ kubectl wait --for=condition=complete job/pi --timeout=120s
$ kubectl logs job/pi
$ kubectl create job oops --image=busybox -- sh -c 'echo failing; exit 3'
$ kubectl patch job oops --type=merge -p '{"spec":{"backoffLimit":1}}'
$ kubectl wait --for=condition=failed job/oops --timeout=120s
$ kubectl get jobs oops
$ kubectl get events --field-selector involvedObject.name=oops
$ kubectl get all
$ kubectl delete job hello
$ kubectl get pods
