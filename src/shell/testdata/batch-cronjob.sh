# CronJobs: a Job every minute named after its scheduled minute, history kept to the limits, create job --from=cronjob, describe, get all
$ kubectl create cronjob hello --image=busybox --schedule='*/1 * * * *' -- sh -c 'date; echo Hello from the Kubernetes cluster'
$ kubectl get cronjobs
$ sleep 130
$ kubectl get cronjob hello
$ kubectl get jobs
$ kubectl logs job/$(kubectl get jobs -o jsonpath='{.items[0].metadata.name}')
$ kubectl create job manual --from=cronjob/hello
$ kubectl get job manual -o jsonpath='{.metadata.annotations}{"\n"}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}{"\n"}'
$ kubectl create job again --from=cronjob/nope
$ kubectl create job again --from=deployment/nope
$ sleep 180
$ kubectl get jobs
$ kubectl describe cronjob hello
$ kubectl get all
$ kubectl create cronjob bad --image=busybox --schedule='61 * * * *'
$ kubectl patch cronjob hello -p '{"spec":{"suspend":true}}'
$ kubectl get cj
