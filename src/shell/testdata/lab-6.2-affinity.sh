# Lab guide §6.2: without affinity 20 requests split over 2 pods; with ClientIP affinity all go to one.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd --replicas=2
$ kubectl expose deployment web --port 80
$ sleep 20
$ for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do
  kubectl exec -it $pod -- bash -c "echo $pod > htdocs/index.html"
done
# The guide types the ClusterIP it saw (10.111.90.183 there).
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ for i in {1..20}; do curl -s $IP; done | sort | uniq -c
$ kubectl patch svc web -p '{"spec":{"sessionAffinity":"ClientIP"}}'
$ kubectl describe svc web | grep -i affinity
$ for i in {1..20}; do curl -s $IP; done | sort | uniq -c
$ iptables-save | grep -c -- "--rcheck --seconds 10800"
