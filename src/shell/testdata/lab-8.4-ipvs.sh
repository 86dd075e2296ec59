# Lab guide §8.4: IPVS mode: virtual and real servers, rr gives exactly 20/20/20 over 60 requests; then wrr.
#! edit mode: "" => mode: "ipvs"
#! edit scheduler: "" => scheduler: "wrr"
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl edit configmap kube-proxy -n kube-system
$ kubectl rollout restart ds kube-proxy -n kube-system
$ kubectl create deployment web --image=nginx --replicas=3
$ sleep 30
$ for pod in $(kubectl get pods -o custom-columns=NAME:.metadata.name --no-headers); do
  kubectl exec $pod -- bash -c "echo $pod > /usr/share/nginx/html/index.html"
done
$ kubectl expose deployment web --port=80
# The guide types the ClusterIP it saw (10.103.143.120 there).
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ ipvsadm -Lnt $IP:80
$ for i in {1..60}; do curl -s $IP; done | sort | uniq -c
$ ipvsadm -Lnt $IP:80
$ kubectl edit configmap kube-proxy -n kube-system
$ kubectl get cm kube-proxy -n kube-system -o yaml | grep -e scheduler -e mode
$ kubectl rollout restart ds kube-proxy -n kube-system
$ sleep 30
$ ipvsadm -Lnt $IP:80
$ for i in {1..60}; do curl -s $IP; done | sort | uniq -c
