# The whole lab guide (../shared/seeds/service-kube-proxy-lab-guide.zh.txt) on ONE cluster, section
# after section, as a student types it. Where the guide shows a value it saw (an IP, a NodePort, a
# pod name) the student types the one their cluster printed: here a variable holds it. Where a
# section re-creates a name an earlier one left behind, the student meets kubectl's AlreadyExists,
# deletes the old object and types the command again, as the transcript shows.
# kubectl edit runs the student's KUBE_EDITOR (a sed), as on a node.
#
# §3.1 command-line creation (the guide works in namespace "services", which §9 deletes)
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3
$ kubectl create service clusterip web --tcp=8080:80
$ sleep 20
$ kubectl get svc
$ kubectl describe service web
$ kubectl describe svc web | grep -e Endpoints -e IP:
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ curl $IP:8080
#
# §3.2 load balancing: each pod's home page says its name
$ for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do
  kubectl exec -it $pod -- bash -c "echo $pod > htdocs/index.html"
done
$ for i in {1..100}; do curl -s $IP:8080; done | sort | uniq -c
$ kubectl scale deployment web --replicas=4
$ kubectl rollout restart deployment web
$ kubectl rollout status deployment web
$ kubectl get endpoints web
$ for i in {1..100}; do curl -s $IP:8080; done | sort | uniq -c
#
# §3.3 expose with another selector: web already exists from §3.1
$ kubectl expose deployment web --port=8080 --target-port=80 --selector=app2=web2
$ kubectl delete svc web
$ kubectl expose deployment web --port=8080 --target-port=80 --selector=app2=web2
$ kubectl get endpoints web
$ kubectl label pod --all app2=web2
$ kubectl get endpoints web
$ kubectl create service clusterip web --tcp=8080:80 -o yaml --dry-run=client > svc-web.yml
$ cat svc-web.yml
# expose wrote no last-applied configuration: apply warns, adopts the Service and keeps what it cannot know it owned.
$ kubectl apply -f svc-web.yml
$ kubectl get svc web -o jsonpath='{.spec.selector}{"\n"}{.spec.ports}{"\n"}'
$ ping -c 2 $(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ ping -c 2 $(kubectl get pods -l app=web -o jsonpath='{.items[0].status.podIP}')
#
# §4.1 by IP: mysql from a dry-run yaml; WordPress with the mysql Service's IP
$ kubectl run mysql --image=hub.laoma.cloud/library/mysql --image-pull-policy=IfNotPresent \
--env=MYSQL_ROOT_PASSWORD=redhat --env=MYSQL_USER=tom \
--env=MYSQL_PASSWORD=redhat --env=MYSQL_DATABASE=blog \
--dry-run=client -o yaml > pod-mysql.yaml
$ kubectl apply -f pod-mysql.yaml
$ kubectl expose pod mysql --port=3306 --target-port=3306
$ MYSQL_IP=$(kubectl get svc mysql -o jsonpath='{.spec.clusterIP}')
$ kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --image-pull-policy=IfNotPresent \
--env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat \
--env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST=$MYSQL_IP
$ kubectl expose pod wordpress --port=80 --target-port=80 --type NodePort
$ sleep 30
$ kubectl get svc
$ curl -I $(kubectl get svc wordpress -o jsonpath='{.spec.clusterIP}')
#
# §4.2 environment variables: a pod started after the Service sees it
$ kubectl run test --rm -it --image=busybox sh
$ env | grep MYSQL
$ exit
# The guide's --env=WORDPRESS_DB_HOST='$(MYSQL_SERVICE_HOST)': the pod "wordpress" exists, so it is replaced.
$ kubectl delete pod wordpress
$ kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat --env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST='$(MYSQL_SERVICE_HOST)'
$ sleep 30
$ kubectl exec wordpress -- env | grep WORDPRESS_DB_HOST
$ curl -s -o /dev/null -w "%{http_code}\n" $(kubectl get svc wordpress -o jsonpath='{.spec.clusterIP}')
#
# §4.3 DNS names
$ kubectl run busybox --rm -it --image=busybox /bin/sh
$ wget wordpress:80
$ wget wordpress.services:80
$ wget wordpress.services.svc.cluster.local:80
$ grep title index.html
$ exit
# The guide's --env=WORDPRESS_DB_HOST=mysql
$ kubectl delete pod wordpress
$ kubectl run wordpress --image=hub.laoma.cloud/library/wordpress --env=WORDPRESS_DB_USER=tom --env=WORDPRESS_DB_PASSWORD=redhat --env=WORDPRESS_DB_NAME=blog --env=WORDPRESS_DB_HOST=mysql
$ sleep 30
$ curl -s -o /dev/null -w "%{http_code}\n" $(kubectl get svc wordpress -o jsonpath='{.spec.clusterIP}')
#
# §5.1 a ClusterIP chosen by hand must lie in the service CIDR: the API answers 422 (kubectl exits 1)
$ kubectl create service clusterip bad --clusterip=10.0.0.10 --tcp=80:80
$ kubectl create service clusterip good --clusterip=10.96.100.100 --tcp=80:80
$ kubectl get svc good
$ kubectl delete svc good
#
# §5.2 NodePort on the same Service web
$ kubectl expose deployment web --type NodePort --port=8080 --target-port=80 \
-o yaml --dry-run=client > service-NodePort.yaml
$ kubectl apply -f service-NodePort.yaml
$ kubectl get service
$ NP=$(kubectl get svc web -o jsonpath='{.spec.ports[0].nodePort}')
$ curl http://10.1.8.30:$NP
$ curl http://10.1.8.31:$NP
$ curl http://10.1.8.32:$NP
$ iptables-save | grep $NP
$ iptables-save | grep KUBE-SVC-7D76YWGERGEPC4GC
#
# §5.3 MetalLB and a LoadBalancer for the same Service web
$ wget https://laoma.cloud/.../metallb-0.14.8.tar.gz
$ tar -xf metallb-0.14.8.tar.gz
$ sed -i 's/quay.io/hub.laoma.cloud/g' metallb-0.14.8/config/manifests/metallb-native.yaml
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
#
# §5.4 ExternalName
$ cat > www.yaml <<EOF
apiVersion: v1
kind: Service
metadata:
  name: www
spec:
  type: ExternalName
  externalName: www.laoma.cloud
EOF
$ kubectl apply -f www.yaml
$ kubectl get svc www
#
# §5.5 headless, with a selector
$ cat > web-headless.yaml <<EOF
apiVersion: v1
kind: Service
metadata:
  name: web-headless
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 80
EOF
$ kubectl apply -f web-headless.yaml
$ kubectl get svc web-headless
$ kubectl get pods -l app=web -o jsonpath='{.items[*].status.podIP}{"\n"}'
$ kubectl run busybox --rm -it --image=busybox /bin/sh
$ nslookup www.services.svc.cluster.local
$ nslookup web-headless
$ exit
#
# §6.2 session affinity: the guide creates web again (2 httpd replicas)
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd --replicas=2
$ kubectl expose deployment web --port 80
$ kubectl delete deployment web
$ kubectl delete svc web
$ kubectl create deployment web --image=hub.laoma.cloud/library/httpd --replicas=2
$ kubectl expose deployment web --port 80
$ sleep 20
$ for pod in $(kubectl get pods -o name | awk -F/ '{print $2}'); do
  kubectl exec -it $pod -- bash -c "echo $pod > htdocs/index.html"
done
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ for i in {1..20}; do curl -s $IP; done | sort | uniq -c
$ kubectl patch svc web -p '{"spec":{"sessionAffinity":"ClientIP"}}'
$ for i in {1..20}; do curl -s $IP; done | sort | uniq -c
#
# §7 canary
$ mkdir web
$ echo hello nginx 1.28 > web/index28.html
$ echo hello nginx 1.29 > web/index29.html
$ kubectl create configmap web --from-file=./web
$ cat <<EOF > webapp-1.28.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {app: web}
  name: web-28
spec:
  replicas: 10
  selector:
    matchLabels: {app: web, tier: frontend, track: stable}
  template:
    metadata:
      labels: {app: web, tier: frontend, track: stable}
    spec:
      containers:
      - image: hub.laoma.cloud/library/nginx:1.28
        name: nginx
        imagePullPolicy: IfNotPresent
        ports:
        - containerPort: 80
        volumeMounts:
        - name: webcontent
          mountPath: "/usr/share/nginx/html"
      volumes:
      - name: webcontent
        configMap:
          name: web
          items:
          - key: index28.html
            path: index.html
EOF
$ sed -e "s/web-28/web-29/" -e "s/stable/canary/g" -e "s/1.28/1.29/" -e "s/index28/index29/" -e "s/replicas: 10/replicas: 1/" webapp-1.28.yaml > webapp-1.29.yaml
$ cat <<EOF > webapp-svc.yaml
apiVersion: v1
kind: Service
metadata:
  labels: {app: web}
  name: web
spec:
  ports:
  - port: 80
    protocol: TCP
    targetPort: 80
  selector:
    app: web
    tier: frontend
EOF
$ kubectl apply -f webapp-1.28.yaml
$ kubectl apply -f webapp-svc.yaml
$ kubectl apply -f webapp-1.29.yaml
$ kubectl scale deployment web-28 --replicas 8
$ kubectl scale deployment web-29 --replicas 2
$ sleep 30
$ kubectl get deploy
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ for i in {1..50}; do curl -s $IP; done | sort -n | uniq -c
# All 50 went to one pod: §6.2's ClientIP affinity stayed on the Service web (webapp-svc.yaml's apply
# adopted the Service and keeps what it cannot know it owned). The student turns it off.
$ kubectl describe svc web | grep -i affinity
$ kubectl patch svc web -p '{"spec":{"sessionAffinity":"None"}}'
$ kubectl get svc web -o jsonpath='{.spec.sessionAffinity} {.spec.sessionAffinityConfig}{"\n"}'
$ for i in {1..50}; do curl -s $IP; done | sort -n | uniq -c
$ kubectl scale deployment web-28 --replicas 6
$ kubectl scale deployment web-29 --replicas 4
$ sleep 30
$ for i in {1..50}; do curl -s $IP; done | sort -n | uniq -c
#
# §8.3 kube-proxy's mode, switched to IPVS through kubectl edit
$ kubectl get cm -n kube-system kube-proxy -o yaml | grep mode
$ kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name
$ POD=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)
$ kubectl logs -n kube-system $POD | grep Using
$ export KUBE_EDITOR="sed -i 's/mode: \"\"/mode: \"ipvs\"/'"
$ kubectl edit configmap -n kube-system kube-proxy
$ kubectl get cm -n kube-system kube-proxy -o yaml | grep mode
$ kubectl rollout restart daemonset -n kube-system kube-proxy
$ kubectl rollout status daemonset -n kube-system kube-proxy
$ NEW=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)
$ kubectl logs -n kube-system $NEW | grep Using
$ ip addr show kube-ipvs0 | head -3
#
# §8.4 IPVS: the guide creates web again (3 nginx)
$ kubectl create deployment web --image=nginx --replicas=3
$ for pod in $(kubectl get pods -o custom-columns=NAME:.metadata.name --no-headers); do
  kubectl exec $pod -- bash -c "echo $pod > /usr/share/nginx/html/index.html"
done
$ kubectl expose deployment web --port=80
$ kubectl delete deployment web web-28 web-29
$ kubectl delete svc web
$ kubectl create deployment web --image=nginx --replicas=3
$ sleep 30
$ for pod in $(kubectl get pods -l app=web -o custom-columns=NAME:.metadata.name --no-headers); do
  kubectl exec $pod -- bash -c "echo $pod > /usr/share/nginx/html/index.html"
done
$ kubectl expose deployment web --port=80
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ ipvsadm -Lnt $IP:80
$ for i in {1..60}; do curl -s $IP; done | sort | uniq -c
$ export KUBE_EDITOR="sed -i 's/scheduler: \"\"/scheduler: \"wrr\"/'"
$ kubectl edit configmap kube-proxy -n kube-system
$ kubectl get cm kube-proxy -n kube-system -o yaml | grep -e scheduler -e mode
$ kubectl rollout restart ds kube-proxy -n kube-system
$ sleep 30
$ ipvsadm -Lnt $IP:80
$ for i in {1..60}; do curl -s $IP; done | sort | uniq -c
#
# §8.5 iptables mode: back to mode "" (iptables) and follow the ClusterIP through the chains
$ export KUBE_EDITOR="sed -i 's/mode: \"ipvs\"/mode: \"\"/'"
$ kubectl edit configmap kube-proxy -n kube-system
$ kubectl rollout restart ds kube-proxy -n kube-system
$ sleep 30
$ NEW=$(kubectl get pods -n kube-system -l k8s-app=kube-proxy -o name | head -1 | cut -d/ -f2)
$ kubectl logs -n kube-system $NEW | grep Using
$ iptables-save > iptables.list
$ grep $IP iptables.list
$ grep KUBE-SVC-7D76YWGERGEPC4GC iptables.list
$ SEP=$(grep -- "-A KUBE-SVC-7D76YWGERGEPC4GC" iptables.list | grep -o 'KUBE-SEP-[A-Z0-9]*' | tr '\n' ' ')
$ set -- $SEP; grep -e $1 -e $2 -e $3 iptables.list | grep DNAT
#
# §9 cleanup
$ kubectl delete ns services
$ kubectl get ns
$ kubectl get all -n services
$ iptables-save | grep -c services/
