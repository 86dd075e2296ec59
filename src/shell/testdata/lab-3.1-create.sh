# Lab guide §3.1: a Deployment of 3 httpd pods, a ClusterIP Service 8080 -> 80, describe, curl.
# (The guide works in namespace "services", which §9 deletes.)
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl create service clusterip web --tcp=8080:80
$ sleep 20
$ kubectl get svc
$ kubectl describe service web
$ kubectl describe svc web | grep -e Endpoints -e IP:
# "curl <the IP you saw>:8080": the IP is the one describe printed.
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ curl $IP:8080
