# Lab guide §3.2: each pod's home page says its name; 100 requests to the ClusterIP, counted per pod.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl create service clusterip web --tcp=8080:80
$ sleep 20
$ kubectl get pods -o wide
$ for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do
  kubectl exec -it $pod -- bash -c "echo $pod > htdocs/index.html"
done
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ for i in {1..100}; do curl -s $IP:8080; done | sort | uniq -c
# A pod created later with app=web joins the Service; after a rollout restart it finds the new pods.
$ kubectl scale deployment web --replicas=4
$ kubectl rollout restart deployment web
$ kubectl rollout status deployment web
$ kubectl get endpoints web
$ for i in {1..100}; do curl -s $IP:8080; done | sort | uniq -c
