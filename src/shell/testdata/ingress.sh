# Ingress as a kubeadm cluster serves it: stored and printed, no ingress controller (ADDRESS stays empty), no IngressClass unless one is made.
$ kubectl create deployment web --image=nginx --replicas=2
$ kubectl expose deployment web --port=80
$ sleep 10
$ kubectl create ingress web --rule='web.example.com/*=web:80,tls=web-tls' --rule=web.example.com/api=api:http
$ kubectl create ingress catch-all --class=nginx --default-backend=web:80
$ kubectl get ingress
$ kubectl get ing web -o yaml
$ kubectl describe ingress web
$ kubectl describe ing catch-all
$ kubectl get ingressclass
$ kubectl create -f - <<EOF
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
EOF
$ kubectl get ingressclass
$ kubectl create -f - <<EOF
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad
spec:
  rules:
  - host: 10.0.0.1
    http:
      paths:
      - path: api
        backend:
          service:
            name: web
            port:
              number: 80
      - path: /x
        pathType: Prefix
        backend:
          service:
            name: web
EOF
$ kubectl create -f - <<EOF
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: empty
spec: {}
EOF
$ kubectl api-resources --api-group=networking.k8s.io
$ kubectl get all
