# Lab guide §9: deleting the namespace deletes everything in it.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl expose deployment web --port=80
$ sleep 20
$ kubectl get all
$ kubectl delete ns services
$ kubectl get ns
$ kubectl get all -n services
$ iptables-save | grep -c services/web
