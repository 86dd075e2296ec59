# Lab guide §5.2: a NodePort Service from a dry-run yaml, reached on every node's IP; its iptables rules.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl expose deployment web --type NodePort --port=8080 --target-port=80 \
-o yaml --dry-run=client > service-NodePort.yaml
$ cat service-NodePort.yaml
$ kubectl apply -f service-NodePort.yaml
$ sleep 20
$ kubectl get service
# The guide types the NodePort it saw (31917 there).
$ NP=$(kubectl get svc web -o jsonpath='{.spec.ports[0].nodePort}')
$ curl http://10.1.8.30:$NP
$ curl http://10.1.8.31:$NP
$ curl http://10.1.8.32:$NP
# v1.33 jumps from KUBE-NODEPORTS to KUBE-EXT-<hash>, which marks for masquerade and jumps to KUBE-SVC-<hash>.
$ iptables-save | grep $NP
$ iptables-save | grep KUBE-SVC-7D76YWGERGEPC4GC
