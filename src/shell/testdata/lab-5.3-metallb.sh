# Lab guide §5.3: MetalLB from its release archive, an address pool with L2 advertisement, a LoadBalancer Service.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ wget https://laoma.cloud/.../metallb-0.14.8.tar.gz
$ tar -xf metallb-0.14.8.tar.gz
$ sed -i 's/quay.io/hub.laoma.cloud/g' metallb-0.14.8/config/manifests/metallb-native.yaml
$ grep image: metallb-0.14.8/config/manifests/metallb-native.yaml
$ kubectl apply -f metallb-0.14.8/config/manifests/metallb-native.yaml
$ sleep 30
$ kubectl get all -n metallb-system
$ cat > ippool.yaml <<EOF
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: first-pool
  namespace: metallb-system
spec:
  addresses:
  - 10.1.8.40-10.1.8.80
EOF
$ cat > L2.yaml <<EOF
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: example
  namespace: metallb-system
EOF
$ kubectl apply -f ippool.yaml
$ kubectl apply -f L2.yaml
$ kubectl expose deployment web --type LoadBalancer --port=80 --target-port=80 \
-o yaml --dry-run=client > service-LoadBalancer.yaml
$ kubectl apply -f service-LoadBalancer.yaml
$ kubectl get service
$ curl http://10.1.8.40:80
# Without internet, other downloads fail as GNU wget reports it.
$ wget https://github.com/metallb/metallb/archive/refs/tags/v0.15.0.tar.gz
