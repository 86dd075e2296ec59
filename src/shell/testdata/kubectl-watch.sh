# kubectl get -w: the list, then a row per change while the cluster runs on (until it has been quiet a while), columns remembered across rows
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=2
$ kubectl get pods -w
$ kubectl scale deployment web --replicas=3
$ kubectl get pods -l app=web -w --output-watch-events
$ kubectl rollout restart deployment web
$ kubectl get pods --watch-only
$ kubectl get deployment web -w --request-timeout=5s
$ kubectl get pods -w -o name --request-timeout=10s
$ kubectl get pods,svc -w
$ kubectl get pod nope -w
