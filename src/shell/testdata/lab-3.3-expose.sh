# Lab guide §3.3: expose with another selector (app2=web2), the yaml template by dry-run, and ping.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ sleep 20
$ kubectl expose deployment web --port=8080 --target-port=80 --selector=app2=web2
$ kubectl get endpoints web
$ kubectl label pod --all app2=web2
$ kubectl get endpoints web
$ kubectl describe svc web | grep -e Selector -e Endpoints
$ kubectl delete svc web
$ kubectl create service clusterip web --tcp=8080:80 -o yaml --dry-run=client > svc-web.yml
$ cat svc-web.yml
$ kubectl apply -f svc-web.yml
$ kubectl get svc web -o yaml | grep -A6 ports:
# ClusterIPs only forward TCP/UDP ports: ping gets no answer; a pod IP answers.
$ ping -c 2 $(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ ping -c 2 $(kubectl get pods -o jsonpath='{.items[0].status.podIP}')
